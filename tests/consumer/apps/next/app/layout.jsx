export const metadata = { title: 'qwasm in a Next.js app' };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
