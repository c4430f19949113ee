import { typeid } from 'typeid-js';
import { ID_PREFIXES, type IdKind } from '@kg/contracts';

/** A new TypeID (`node_01jd…`): prefix plus a time-sortable UUIDv7 body. */
export const newId = (kind: IdKind): string => typeid(ID_PREFIXES[kind]).toString();
