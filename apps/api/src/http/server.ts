import type { Express } from 'express';
import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The api's HTTP server: Node builds every request and response on Express's own prototypes
 * (`app.request`, `app.response`) from the start. Express sets those prototypes on each request
 * it handles (`Object.setPrototypeOf` in `app.handle`); with them already in place the call
 * changes nothing. Changing the prototype of a live object instead makes V8 keep each request's
 * objects past young-generation collections, so they pile up in the old generation and a full
 * collection pauses the api every second or two under load (docs/write-path.md, "Express's
 * prototypes").
 */
export function createHttpServer(app: Express): Server {
  // Node's constructors are plain functions, called here on an object made from Express's
  // prototype. (Reflect.construct would work on classes too, but is much slower; docs/write-path.md,
  // "Express's prototypes".) Should a later Node make them classes, Express sets the
  // prototypes itself as before.
  if (isClass(IncomingMessage) || isClass(ServerResponse)) return createServer(app);
  function ApiRequest(this: IncomingMessage, socket: Socket): void {
    IncomingMessage.call(this, socket);
  }
  ApiRequest.prototype = app.request;
  function ApiResponse(this: ServerResponse, req: IncomingMessage, options?: object): void {
    // The server passes options (its high-water mark) that Node's type for the constructor leaves out.
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void).call(this, req, options);
  }
  ApiResponse.prototype = app.response;
  return createServer(
    { IncomingMessage: ApiRequest as unknown as typeof IncomingMessage, ServerResponse: ApiResponse as unknown as typeof ServerResponse },
    app,
  );
}

const isClass = (constructor: unknown) => /^class\b/.test(Function.prototype.toString.call(constructor));
