'use client';

import { useState } from 'react';
import { Button } from './Button';

/** Copies a value to the clipboard and says so (politely, to screen readers too). */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <>
      <Button
        size="sm"
        variant="secondary"
        onClick={() => {
          navigator.clipboard.writeText(value).then(
            () => setCopied('copied'),
            () => setCopied('failed'),
          );
        }}
      >
        {label}
      </Button>
      <span className="copy-status" aria-live="polite">
        {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Copy failed: select the text and copy it' : ''}
      </span>
    </>
  );
}
