'use client';

import type { ProfileSummary } from '@statehouse/contracts';
import { usePathname, useSearchParams } from 'next/navigation';
import { useId, useState } from 'react';
import { Select } from '@/app/ui/common';
import { PRIMARY_NAV, PROFILE_SWITCH_KEEPS } from '@/lib/navigation';
import { hrefWith } from '@/lib/paths';
import { rememberProfile } from '@/lib/remembered-profile';

const NO_SELECTION = '__none__';

/**
 * Sets `profile` in the URL and remembers it for the other pages (lib/remembered-profile.ts). On
 * a profile-scoped page (sessions, search) the page's filters are kept and its cursor dropped; anywhere else it opens the chosen profile's sessions. It navigates
 * only when the form is submitted (the Show button, or Enter): arrow keys on a closed <select>
 * change its value without opening it, so navigating on `change` would leave a keyboard user on
 * another page after the first key press (WCAG 3.2.2, On Input).
 */
export function ProfileSwitcher({ profiles }: { profiles: ProfileSummary[] }) {
  const id = useId();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const [pending, setPending] = useState(false);
  const scoped = PRIMARY_NAV.find((item) => item.profileScoped && item.href === pathname);
  // Outside a list (a single session) no profile is "selected": the switcher only navigates.
  const current = scoped ? (searchParams.get('profile') ?? '') : NO_SELECTION;

  function targetFor(profile: string): string {
    if (!scoped) return hrefWith('/sessions', { profile });
    const kept: Record<string, string | null> = {};
    for (const key of PROFILE_SWITCH_KEEPS[scoped.href] ?? []) kept[key] = searchParams.get(key);
    return hrefWith(scoped.href, { ...kept, profile });
  }

  return (
    <form
      className="profile-switcher"
      action={scoped?.href ?? '/sessions'}
      method="get"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        const profile = String(data.get('profile') ?? '');
        if (profile === NO_SELECTION) return;
        rememberProfile(profile);
        setPending(true);
        // A whole page load, not a client navigation: the router keeps answers it prefetched under
        // the old choice (a link to /routes that the front door sent on to /routes?profile=old),
        // and a client navigation would follow them.
        window.location.assign(targetFor(profile));
      }}
    >
      <label className="profile-switcher__label" htmlFor={id}>
        Profile
      </label>
      <Select
        id={id}
        name="profile"
        defaultValue={current}
        key={`${pathname}:${current}`}
        aria-busy={pending || undefined}
      >
        {scoped ? null : (
          <option value={NO_SELECTION} disabled>
            Switch profile…
          </option>
        )}
        <option value="">All profiles</option>
        {profiles.map((profile) => (
          <option key={profile.name} value={profile.name}>
            {profile.name} ({profile.conversationCount})
          </option>
        ))}
      </Select>
      <button type="submit" className="btn btn--secondary btn--sm" disabled={pending}>
        Show
      </button>
    </form>
  );
}
