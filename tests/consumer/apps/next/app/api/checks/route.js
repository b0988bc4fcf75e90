// A route handler on the Node.js runtime: qwasm's Node.js build, bundled
// into the server by Next.js, runs the checks and returns them (the driver
// asks once per server: the checks start before init()).
import * as qwasm from 'qwasm';
import c from '../../../../case.json';
import { runChecks } from '../../../../check.mjs';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic'; // run at request time, not at build time

export async function GET() {
  try {
    return Response.json(await runChecks(qwasm, c));
  } catch (e) {
    return Response.json({ error: String(e?.message ?? e) }, { status: 500 });
  }
}
