// The one line such an app needs: the package's dist/ was copied to /qwasm/.
export const locateFile = (file) => `/qwasm/${file}`;
