// The page (a server component, prerendered at build time) only renders the
// client component that runs the checks in the browser.
import Checks from './checks.jsx';

export default function Page() {
  return <Checks />;
}
