// The Next.js app again (the driver copies app/ here) with the one line the
// README gives for threads in route handlers: qwasm stays out of the server
// bundle, so its Node.js build finds the threaded variant's files as shipped.
import base from '../next/next.config.mjs';

export default { ...base, serverExternalPackages: ['qwasm'] };
