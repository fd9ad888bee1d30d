'use client';

import { useId, useState } from 'react';
import { applyTheme, THEMES, type Theme } from '@/lib/theme';

const LABELS: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/**
 * System, light or dark. Radio buttons rather than a select: a choice applies as soon as it is
 * made (arrow keys move between the three), and each option is visible at once.
 */
export function ThemeSwitcher({ initial }: { initial: Theme }) {
  const name = useId();
  const [theme, setTheme] = useState<Theme>(initial);
  return (
    <fieldset className="theme-switcher">
      <legend className="visually-hidden">Theme</legend>
      {THEMES.map((option) => (
        <label key={option} className="theme-switcher__option" title={`${LABELS[option]} theme`}>
          <input
            type="radio"
            name={name}
            value={option}
            checked={theme === option}
            onChange={() => {
              setTheme(option);
              applyTheme(option);
            }}
          />
          <span>{LABELS[option]}</span>
        </label>
      ))}
    </fieldset>
  );
}
