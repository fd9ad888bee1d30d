import type { ReactNode } from 'react';
import './sessions.css';

interface SessionLayoutProps {
  transcript: ReactNode;
  lineage: ReactNode;
  manage: ReactNode;
  details: ReactNode;
}

/** Desktop: transcript left; lineage, manage and details right. Narrow: lineage, transcript, then the rest. */
export function SessionLayout({ transcript, lineage, manage, details }: SessionLayoutProps) {
  return (
    <div className="session-layout">
      <div className="session-layout__transcript">{transcript}</div>
      <div className="session-layout__lineage">{lineage}</div>
      <div className="session-layout__manage">{manage}</div>
      <aside className="session-layout__details" aria-label="Session details">
        {details}
      </aside>
    </div>
  );
}
