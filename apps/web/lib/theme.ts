/**
 * The dashboard's theme: the system's colour scheme unless a person picks light or dark. The pick
 * is kept in a cookie so the server renders `data-theme` on <html> from the first byte (no flash
 * of the other theme); "system" sets no attribute and lets prefers-color-scheme decide.
 */
export const THEME_COOKIE = 'statehouse_theme';
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

const ONE_YEAR_S = 365 * 24 * 60 * 60;

export function parseTheme(value: string | undefined): Theme {
  return (THEMES as readonly string[]).includes(value ?? '') ? (value as Theme) : 'system';
}

/** The `data-theme` attribute for a theme (none for the system's). */
export function themeAttribute(theme: Theme): 'light' | 'dark' | undefined {
  return theme === 'system' ? undefined : theme;
}

/** Client side: applies a theme at once and remembers it. */
export function applyTheme(theme: Theme): void {
  const attribute = themeAttribute(theme);
  if (attribute) document.documentElement.dataset.theme = attribute;
  else delete document.documentElement.dataset.theme;
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from browsers the dashboard supports; the value is a fixed name or a validated profile name.
  document.cookie =
    theme === 'system'
      ? `${THEME_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`
      : `${THEME_COOKIE}=${theme}; Path=/; Max-Age=${ONE_YEAR_S}; SameSite=Lax`;
}
