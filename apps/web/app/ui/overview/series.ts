/** The chart palette's tokens (styles/tokens.css), in series order; legend swatches use the same order. */
export const SERIES_COLOURS = [
  '--chart-1',
  '--chart-2',
  '--chart-3',
  '--chart-4',
  '--chart-5',
  '--chart-6',
  '--chart-7',
  '--chart-8',
  '--chart-9',
  '--chart-10',
];

export const swatchClass = (index: number) => `chart-swatch chart-swatch--${(index % SERIES_COLOURS.length) + 1}`;
