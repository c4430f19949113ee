/** Previous / next through a page-numbered list (`page`, `per_page`, `total`). */
export function Pager({
  page,
  perPage,
  total,
  onPage,
  label,
}: {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
  label: string;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  return (
    <nav className="row" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages} · {total} in all
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
