import './import.css';

interface ImportProgressBarProps {
  label: string;
  /** 0..1, or null while the total is not known yet. */
  fraction: number | null;
  detail: string;
  testId?: string;
}

/** A labelled progress bar (native `<progress>`: announced by screen readers with its value). */
export function ImportProgressBar({ label, fraction, detail, testId }: ImportProgressBarProps) {
  const percent = fraction === null ? null : Math.round(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <div className="import-progress" data-testid={testId}>
      <div className="import-progress__label">
        <span>{label}</span>
        <span>{percent === null ? detail : `${percent} % · ${detail}`}</span>
      </div>
      <progress
        className="import-progress__bar"
        aria-label={label}
        max={100}
        value={percent ?? undefined}
        aria-valuetext={percent === null ? detail : `${percent} percent, ${detail}`}
      />
    </div>
  );
}
