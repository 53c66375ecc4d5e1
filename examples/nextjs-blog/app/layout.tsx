import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { siteTitle } from '../lib/site';

export const metadata: Metadata = {
  title: siteTitle,
  alternates: { types: { 'application/rss+xml': '/feed.xml' } },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
