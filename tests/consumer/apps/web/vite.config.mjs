// Page hosting only, nothing about qwasm: the dev server sends the two
// headers that make the page cross-origin isolated (threads need them).
export default {
  server: {
    headers: {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    },
  },
};
