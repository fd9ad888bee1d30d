import { describe, expect, it } from 'vitest';
import { describeDamage } from './hermes-damage.js';

describe('the damage note of an imported Hermes file', () => {
  it('says nothing for a sound file', () => {
    expect(describeDamage([])).toBeNull();
  });

  it('calls damage confined to Hermes’ search index harmless: that index is never imported', () => {
    const note = describeDamage(['malformed inverted index for FTS5 table main.messages_fts']);
    expect(note).toMatch(/^Hermes' own search index in this file is damaged/);
    expect(note).toContain('every conversation is imported as usual');
    expect(note).toContain('malformed inverted index');
  });

  it('says what damage elsewhere costs: conversations are imported whole or left out', () => {
    const note = describeDamage([
      'malformed inverted index for FTS5 table main.messages_fts',
      'Tree 5 page 12 cell 3: 2nd reference to page 40',
    ]);
    expect(note).toMatch(/^Part of this file is damaged/);
    expect(note).toContain('never imported in part');
  });
});
