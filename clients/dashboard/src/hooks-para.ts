import { api, unwrap } from './api/client';
import { useLoad } from './hooks';

/** Every PARA item (for pickers and filters), active first. */
export function useParaItems() {
  return useLoad(async () => {
    const list = unwrap(await api.GET('/para'));
    return [...list.data].sort(
      (a, b) => Number(a.status !== 'active') - Number(b.status !== 'active') || a.label.localeCompare(b.label),
    );
  }, []);
}
