/** Shown while a dashboard page's data loads; the header stays usable. */
export default function Loading() {
  return (
    <div aria-busy="true" aria-live="polite" className="loading-page">
      <span className="visually-hidden">Loading…</span>
      <div className="skeleton skeleton--title" />
      <div className="skeleton skeleton--card" />
      <div className="skeleton skeleton--list" />
    </div>
  );
}
