// The guides (README.md, docs/*.md) as HTML pages of the site
// (scripts/build-site.mjs). Markdown is rendered by markdown-it, the parser
// TypeDoc (a devDependency) renders its own comments with, loaded through
// TypeDoc's resolution so that the site needs no dependency of its own.
// Links between guides become links between their pages; a relative link to
// anything else (a source file) is an error, since the site does not hold it.
import { createRequire } from 'node:module';
import { posix } from 'node:path';

const ROOT = new URL('../../', import.meta.url);
const MarkdownIt = createRequire(new URL('node_modules/typedoc/package.json', ROOT))('markdown-it');

/** The page of the site a guide becomes: README.md is the home page, docs/ the guides/ folder. */
export function guidePage(file) {
  if (file === 'README.md') return 'index.html';
  const m = /^docs\/([\w.-]+)\.md$/.exec(file);
  if (!m) throw new Error(`${file} is not a guide (README.md or docs/*.md)`);
  return m[1] === 'README' ? 'guides/index.html' : `guides/${m[1]}.html`;
}

/** `to` (a path in the site) as a link from the page `from`. */
export function relativeLink(from, to) {
  const link = posix.relative(posix.dirname(from), to);
  return link === '' ? './' : to.endsWith('/') && !link.endsWith('/') ? `${link}/` : link;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

function headingIds(state) {
  const seen = new Map();
  state.tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const base = slug(state.tokens[i + 1].children.map((t) => t.content).join(''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    token.attrSet('id', n === 0 ? base : `${base}-${n}`);
  });
}

/**
 * Renders the guide `file` (its markdown `text`) to the body of its page.
 * Returns { html, title, sections }: the title is its first heading's text,
 * the sections its second-level headings ({ id, text }).
 */
export function renderGuide(file, text) {
  const md = new MarkdownIt({ html: true });
  md.core.ruler.push('heading_ids', headingIds);
  const page = guidePage(file);
  const defaultLink =
    md.renderer.rules.link_open ?? ((tokens, i, options, env, self) => self.renderToken(tokens, i, options));
  md.renderer.rules.link_open = (tokens, i, options, env, self) => {
    const href = tokens[i].attrGet('href');
    if (!/^([a-z][a-z0-9+.-]*:|#)/i.test(href)) {
      const [path, anchor] = href.split('#');
      const target = posix.normalize(posix.join(posix.dirname(file), path));
      if (!/\.md$/.test(target)) {
        throw new Error(
          `${file} links to ${href}, which the site does not hold: link a guide, or cite the file in backticks`,
        );
      }
      tokens[i].attrSet('href', relativeLink(page, guidePage(target)) + (anchor ? `#${anchor}` : ''));
    }
    return defaultLink(tokens, i, options, env, self);
  };
  const tokens = md.parse(text, {});
  const textAt = (i) => tokens[i + 1].children.map((t) => t.content).join('');
  const heading = tokens.findIndex((t) => t.type === 'heading_open');
  const sections = tokens.flatMap((t, i) =>
    t.type === 'heading_open' && t.tag === 'h2' ? [{ id: t.attrGet('id'), text: textAt(i) }] : [],
  );
  return { html: md.renderer.render(tokens, md.options, {}), title: heading < 0 ? file : textAt(heading), sections };
}
