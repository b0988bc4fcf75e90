// The one line an esbuild app needs: the package's dist/ was copied to /qwasm/.
export const locateFile = (file) => `/qwasm/${file}`;
