import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../common/search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;
const GRPC_ALREADY_EXISTS = 6;

/**
 * Registers the project's custom search attributes in `namespace`; attributes already present with the same type
 * are left alone, one present with another type is an error.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES) as [SearchAttributeName, string][]) {
    const wanted = IndexedValueType[`INDEXED_VALUE_TYPE_${type}` as keyof typeof IndexedValueType];
    const existing = customAttributes?.[name];
    if (existing === undefined || existing === null) missing[name] = wanted;
    else if (existing !== wanted) {
      throw new Error(`search attribute ${name} exists in namespace ${namespace} as ${IndexedValueType[existing]}`);
    }
  }
  if (Object.keys(missing).length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (error) {
    // Another process may have registered them between our list and add.
    if ((error as { code?: number }).code !== GRPC_ALREADY_EXISTS) throw error;
  }
}
