import type { ReactNode } from 'react';
import { formatNumber } from '@/lib/format';
import { DownloadButton } from './DownloadButton';
import './transcript.css';

/** Above this many characters content scrolls inside its own box and can be downloaded. */
export const LONG_CONTENT_CHARS = 4000;

interface LongContentProps {
  /** The content as text (what the download saves). */
  text: string;
  /** What it is: names the box and the download. */
  label: string;
  fileName: string;
  extension?: 'txt' | 'json' | 'md';
  /** How it is shown. */
  children: ReactNode;
}

/**
 * Long content (a big tool result, a pasted file) kept from taking over the transcript: it scrolls
 * inside a box of its own — focusable, so the keyboard scrolls it too — with its size and a
 * download. Short content is shown as it is.
 */
export function LongContent({ text, label, fileName, extension = 'txt', children }: LongContentProps) {
  if (text.length <= LONG_CONTENT_CHARS) return <>{children}</>;
  return (
    <div className="long-content">
      <div className="long-content__toolbar">
        <span className="long-content__size">{formatNumber(text.length)} characters</span>
        <DownloadButton text={text} fileName={`${fileName}.${extension}`} label={label} />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus to be scrolled by keyboard */}
      <figure className="long-content__box scroll-box" tabIndex={0} aria-label={label}>
        {children}
      </figure>
    </div>
  );
}
