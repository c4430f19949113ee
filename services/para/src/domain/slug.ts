import slugify from '@sindresorhus/slugify';

/** Slug base of a label: transliterated, lowercase, dash-separated; `item` when nothing is left. */
export function slugBase(label: string): string {
  return slugify(label).slice(0, 80).replace(/-+$/, '') || 'item';
}

/**
 * The first free slug for `base` among the ones taken in the same tenant and category:
 * `base`, then `base-2`, `base-3`, …
 */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}
