/** `[[Target]]`, `[[Target|shown]]`, `[[Target#Heading]]`, `[[Target^block]]`, `![[Embed]]`. */
const WIKI_LINK = /(!?)\[\[([^[\]|#^\n]*)(?:[#^][^[\]|\n]*)?(?:\|[^[\]\n]*)?\]\]/g;
const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;
const INLINE_CODE = /`[^`\n]*`/g;

/** Attachments (`![[diagram.png]]`, `[[paper.pdf]]`) are not notes. */
const isAttachment = (target: string) => /\.[A-Za-z0-9]{1,8}$/.test(target) && !/\.md$/i.test(target);

/**
 * The note names a markdown text links to, in order of first appearance, without duplicates.
 * Code (fenced blocks and inline spans) is skipped; `.md` is dropped; a link to a heading of
 * the same note (`[[#Heading]]`) is not a link to another note.
 */
export function wikiLinks(markdown: string): string[] {
  const text = markdown.replace(FENCED, '').replace(INLINE_CODE, '');
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of text.matchAll(WIKI_LINK)) {
    const target = m[2]!.trim().replace(/\.md$/i, '');
    if (!target || isAttachment(target)) continue;
    const key = target.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(target);
  }
  return out;
}

/** Front matter link lists (`links: ["[[A]]", "B"]`, Obsidian properties): each entry, brackets optional. */
export function frontMatterLinks(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return list.flatMap((v) => {
    const s = String(v);
    return s.includes('[[') ? wikiLinks(s) : s.trim() ? [s.trim().replace(/\.md$/i, '')] : [];
  });
}
