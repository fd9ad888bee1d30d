'use client';

import { Button } from '@/app/ui/common/Button';

/** Saves `text` as a file, made in the browser (nothing is fetched again). */
export function DownloadButton({ text, fileName, label }: { text: string; fileName: string; label: string }) {
  return (
    <Button
      size="sm"
      variant="secondary"
      aria-label={`Download ${label.toLowerCase()}`}
      onClick={() => {
        const url = URL.createObjectURL(
          new Blob([text], { type: fileName.endsWith('.json') ? 'application/json' : 'text/plain' }),
        );
        const link = document.createElement('a');
        link.href = url;
        link.download = fileName;
        link.click();
        setTimeout(() => URL.revokeObjectURL(url), 0);
      }}
    >
      Download
    </Button>
  );
}
