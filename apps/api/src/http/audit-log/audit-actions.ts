import { OPENAPI_DOCUMENT } from '../../openapi/document';

/** What an audit entry says was done (docs/teams.md, "Audit log"). */
export interface AuditAction {
  action: string;
  resourceType: string | null;
  resourceId: string | null;
}

interface Template {
  method: string;
  pattern: RegExp;
  operationId: string;
  /** The path segment before `{id}` (`broadcasts`), or null for a route without one. */
  resourceType: string | null;
  /** Index of the `{id}` capture in the pattern's groups. */
  idGroup: number | null;
  /** Literal routes go before templated ones, so `/subscribers/find.json` is not an `{id}`. */
  parameters: number;
}

const WRITE_METHODS = ['post', 'put', 'patch', 'delete'] as const;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(route: string, method: string, operationId: string): Template {
  const names: string[] = [];
  const source = route
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return escape(part);
      names.push(name);
      return '([^/]+)';
    })
    .join('');
  const idGroup = names.indexOf('id');
  const resourceType = idGroup < 0 ? null : (/([^/]+)\/\{id\}/.exec(route)?.[1]?.replace(/\.json$/, '') ?? null);
  return {
    method: method.toUpperCase(),
    pattern: new RegExp(`^${source}$`),
    operationId,
    resourceType,
    idGroup: idGroup < 0 ? null : idGroup,
    parameters: names.length,
  };
}

/**
 * The documented writes, each named by its OpenAPI operationId (`createBroadcast`,
 * `sendBroadcast`): the document lists every route the app registers (openapi.int.test.ts),
 * so a write's action is the same stable name its clients call it by. Routes another part mounts
 * later (the dashboard's `/auth` calls) are named as soon as they are documented.
 */
export class AuditActions {
  private readonly templates: Template[];

  constructor(paths: Record<string, Record<string, unknown>> = OPENAPI_DOCUMENT.paths as Record<string, Record<string, unknown>>) {
    this.templates = Object.entries(paths)
      .flatMap(([route, item]) =>
        WRITE_METHODS.flatMap((method) => {
          const operation = item[method] as { operationId?: string } | undefined;
          return operation?.operationId === undefined ? [] : [compile(route, method, operation.operationId)];
        }),
      )
      .sort((a, b) => a.parameters - b.parameters);
  }

  /** The action of `method path`; an undocumented route is named `METHOD path`, its numbers as `:id`. */
  of(method: string, path: string): AuditAction {
    for (const t of this.templates) {
      if (t.method !== method) continue;
      const match = t.pattern.exec(path);
      if (match === null) continue;
      const raw = t.idGroup === null ? undefined : match[t.idGroup + 1];
      return { action: t.operationId, resourceType: t.resourceType, resourceId: raw === undefined ? null : safeDecode(raw) };
    }
    return { action: `${method} ${path.replace(/\/\d+(?=\/|$)/g, '/:id')}`, resourceType: null, resourceId: null };
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
