/** The Statehouse mark: a stack of records (sessions) with a column (the house). Decorative. */
export function BrandMark({ size = 18 }: { size?: number }) {
  return (
    <span className="brand__mark" aria-hidden="true">
      <svg
        aria-hidden="true"
        width={size}
        height={size}
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2.2"
      >
        <path d="M3 9.5 12 4l9 5.5" strokeLinecap="round" strokeLinejoin="round" />
        <path d="M6 11v7M10 11v7M14 11v7M18 11v7" strokeLinecap="round" />
        <path d="M4 20.5h16" strokeLinecap="round" />
      </svg>
    </span>
  );
}
