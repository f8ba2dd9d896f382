import { isPermission, type Permission } from '@mailcast/domain';
import type { Json } from '../../openapi/operation';
import { DISCOVERY } from '../../openapi/operation';

export interface Capability {
  resource: string;
  read: boolean;
  write: boolean;
  endpoints: Array<{ method: string; path: string }>;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** `subscribers_read` → subscribers; `global_suppressions_write` → global_suppressions. */
const resourceOf = (permission: Permission): string => permission.replace(/_(?:read|write)$/, '');

/**
 * What a caller can reach, read from the OpenAPI document (docs/discovery.md, prime): each
 * operation's `x-permission` names its resource and whether it reads or writes, so the list
 * cannot drift from what is documented (and the document from the routes: openapi.int.test.ts).
 * Only resources the caller holds a permission of are answered, with only the operations it
 * may call; the discovery operations, open to every token, come first as `discovery`.
 */
export function capabilitiesOf(document: Readonly<Json>, held: readonly Permission[]): Capability[] {
  const byResource = new Map<string, Capability>();
  const discovery: Capability = { resource: 'discovery', read: true, write: false, endpoints: [] };
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const permission = operation['x-permission'];
      if (typeof permission !== 'string') {
        const open = (operation.tags as string[] | undefined)?.includes(DISCOVERY) === true && !Array.isArray(operation.security);
        if (open) discovery.endpoints.push({ method: method.toUpperCase(), path });
        continue;
      }
      if (!isPermission(permission) || !held.includes(permission)) continue;
      const resource = resourceOf(permission);
      let capability = byResource.get(resource);
      if (capability === undefined) {
        capability = {
          resource,
          read: held.includes(`${resource}_read` as Permission),
          write: held.includes(`${resource}_write` as Permission),
          endpoints: [],
        };
        byResource.set(resource, capability);
      }
      capability.endpoints.push({ method: method.toUpperCase(), path });
    }
  }
  return [discovery, ...[...byResource.values()].sort((a, b) => a.resource.localeCompare(b.resource))];
}
