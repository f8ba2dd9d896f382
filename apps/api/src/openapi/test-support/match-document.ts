import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { OPENAPI_DOCUMENT } from '../document';

/**
 * Holds real answers against the OpenAPI document: any test may call expectMatchesDocument
 * (or expectResponseMatchesDocument with a supertest response) to prove that what the API
 * sent is what the document promises, status, headers and body.
 */

type Json = { [key: string]: unknown };

const BASE = 'https://mailcast.invalid/openapi.json';
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Component refs made absolute, so a schema compiled on its own still finds its components. */
function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')
        ? `${BASE}#/$defs/${inner.slice('#/components/schemas/'.length)}`
        : absoluteRefs(inner);
  }
  return out;
}

export class DocumentMatcher {
  readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp }>;

  constructor(readonly document: Json = OPENAPI_DOCUMENT as Json) {
    // strict: an unknown keyword or a misspelt one in the document is an error here, not a
    // silently ignored annotation.
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    const components = document.components as { schemas: Json };
    this.ajv.addSchema({ $id: BASE, $defs: absoluteRefs(components.schemas) as Json });
    // Literal paths before templated ones, so /subscribers/find.json never reads as an {id}.
    this.templates = Object.keys(document.paths as Json)
      .map((template) => ({
        template,
        pattern: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
      }))
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /** Every component schema compiles: the $refs resolve and every keyword is known. */
  compileAll(): string[] {
    return Object.keys((this.document.components as { schemas: Json }).schemas).map((name) => {
      this.validator(`#/$defs/${name}`, { $ref: `${BASE}#/$defs/${name}` });
      return name;
    });
  }

  validator(key: string, schema: unknown): ValidateFunction {
    let found = this.compiled.get(key);
    if (!found) {
      found = this.ajv.compile(absoluteRefs(schema) as Json);
      this.compiled.set(key, found);
    }
    return found;
  }

  templateOf(path: string): string | undefined {
    const bare = path.split('?')[0]!;
    return this.templates.find((t) => t.pattern.test(bare))?.template;
  }

  operation(method: string, path: string): { template: string; operation: Json } {
    const template = this.templateOf(path);
    if (!template) throw new Error(`${method.toUpperCase()} ${path}: no documented path matches`);
    const operation = ((this.document.paths as Record<string, Json>)[template] as Json)[method.toLowerCase()] as Json | undefined;
    if (!operation) throw new Error(`${method.toUpperCase()} ${template}: the method is not documented for this path`);
    return { template, operation };
  }

  private resolve(response: Json): Json {
    const target = response.$ref;
    if (typeof target !== 'string') return response;
    const name = target.slice('#/components/responses/'.length);
    return ((this.document.components as { responses: Json }).responses[name] as Json) ?? {};
  }

  private header(value: Json): Json {
    const target = value.$ref;
    if (typeof target !== 'string') return value;
    return (this.document.components as { headers: Record<string, Json> }).headers[target.slice('#/components/headers/'.length)]!;
  }

  /** Problems of a request body against the operation's documented requestBody (JSON only). */
  checkRequest(method: string, path: string, body: unknown): string[] {
    const { template, operation } = this.operation(method, path);
    const where = `${method.toUpperCase()} ${template} request`;
    const requestBody = operation.requestBody as { required?: boolean; content?: Record<string, Json> } | undefined;
    if (body === undefined) return requestBody?.required ? [`${where}: body required`] : [];
    const media = requestBody?.content?.['application/json'];
    if (!media) return [`${where}: no JSON body is documented`];
    const validate = this.validator(`${where} body`, media.schema);
    return validate(body) ? [] : [`${where}: body does not match: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`];
  }

  /** Returns the problems found; an empty list means the answer is what the document promises. */
  check(method: string, path: string, status: number, body: unknown, headers: Record<string, unknown> = {}): string[] {
    const { template, operation } = this.operation(method, path);
    const where = `${method.toUpperCase()} ${template} → ${status}`;
    const responses = operation.responses as Record<string, Json>;
    const declared = responses[String(status)] ?? responses.default;
    if (!declared) return [`${where}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
    const response = this.resolve(declared);
    const problems: string[] = [];
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

    for (const [name, raw] of Object.entries((response.headers as Json | undefined) ?? {})) {
      const spec = this.header(raw as Json);
      const actual = lower[name.toLowerCase()];
      if (actual === undefined) {
        if (spec.required === true) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      const schema = spec.schema as Json;
      const typed = schema.type === 'integer' && /^-?\d+$/.test(String(actual)) ? Number(actual) : actual;
      const validate = this.validator(`${where} header ${name}`, schema);
      if (!validate(typed)) problems.push(`${where}: header ${name}=${String(actual)} ${this.ajv.errorsText(validate.errors)}`);
    }

    const content = response.content as Record<string, Json> | undefined;
    if (!content) return problems;
    const contentType = typeof lower['content-type'] === 'string' ? (lower['content-type'] as string).split(';')[0]!.trim() : undefined;
    if (contentType !== undefined && !(contentType in content)) {
      problems.push(`${where}: content type ${contentType} not documented (${Object.keys(content).join(', ')})`);
      return problems;
    }
    const media = content['application/json'];
    if (media && (contentType === undefined || contentType === 'application/json')) {
      const validate = this.validator(`${where} body`, media.schema);
      if (!validate(body)) {
        problems.push(
          `${where}: body does not match the documented schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}\n${JSON.stringify(body).slice(0, 2000)}`,
        );
      }
    }
    return problems;
  }
}

let shared: DocumentMatcher | undefined;
const matcher = () => (shared ??= new DocumentMatcher());

/** Fails the test when the answer is not what the document says for this operation and status. */
export function expectMatchesDocument(method: string, path: string, status: number, body: unknown, headers: Record<string, unknown> = {}): void {
  const problems = matcher().check(method, path, status, body, headers);
  if (problems.length > 0) throw new Error(problems.join('\n'));
}

/** The supertest form: method and path come from the request that produced the response. */
export function expectResponseMatchesDocument(res: { status: number; body: unknown; headers: Record<string, unknown> }): void {
  // supertest's typings leave out `req`, the node ClientRequest it keeps on every response.
  const req = (res as { req?: { method?: unknown; path?: unknown } }).req;
  if (typeof req?.method !== 'string' || typeof req.path !== 'string') throw new Error('not a supertest response: no req');
  expectMatchesDocument(req.method, req.path, res.status, res.body, res.headers);
}

interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
  rawPath?: unknown;
}

/**
 * Every METHOD path an Express 5 app answers with a route, as OpenAPI templates (`:id` →
 * `{id}`), mounted routers included. Express 5's router (router 2.x) keeps a layer's
 * registered path in `rawPath`, and a mounted router's layers in `handle.stack`.
 */
export function registeredRoutes(app: Express): string[] {
  const found = new Set<string>();
  const join = (prefix: string, path: string) => (prefix + (path === '/' ? '' : path)).replace(/\/{2,}/g, '/') || '/';
  const toTemplate = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          if (typeof path !== 'string') throw new Error(`a route with a non-string path under ${prefix}: document it by hand`);
          for (const method of Object.keys(layer.route.methods)) {
            found.add(`${method === '_all' ? 'ALL' : method.toUpperCase()} ${toTemplate(join(prefix, path))}`);
          }
        }
      } else if (layer.handle && Array.isArray(layer.handle.stack)) {
        const mount = typeof layer.rawPath === 'string' ? layer.rawPath : '/';
        walk(layer.handle.stack, join(prefix, mount));
      }
    }
  };
  walk((app as unknown as { router: { stack: RouterLayer[] } }).router.stack, '');
  return [...found].sort();
}

/** Every METHOD path the document describes. */
export function documentedOperations(document: Json = OPENAPI_DOCUMENT as Json): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of HTTP_METHODS) if (item[method]) out.push(`${method.toUpperCase()} ${path}`);
  }
  return out.sort();
}
