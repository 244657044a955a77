/**
 * Pixgate's API inside an Effect application: `HttpApiBuilder.serve()` over `NodeHttpServer`,
 * next to the application's own route, on one runtime with the application's logger; the
 * application provides the storage (SQLite here). From the repository root:
 *   PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/effect-httpapi.ts
 * and create a merchant in the same ./data/pixgate.db: pnpm pixgate merchant create --name Shop
 */

import { createServer } from "node:http"
import { pathToFileURL } from "node:url"
import { HttpApiBuilder, HttpMiddleware, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Engine } from "@pixgate/core"
import { NodeWebhookTransport } from "@pixgate/core/node"
import { HttpApiLayer, RateLimit } from "@pixgate/http"
import { SqliteStore } from "@pixgate/store-sqlite"
import { Layer, Logger } from "effect"

/** The engine over the application's own storage, with the per-key rate limit of the API. */
const pixgate = (filename: string) =>
  Layer.merge(
    Engine.layer().pipe(
      Layer.provideMerge(SqliteStore.layer({ filename })),
      Layer.provide(NodeWebhookTransport.layer)
    ),
    RateLimit.layer()
  )

/** The application's own route, served by the same router as Pixgate's API. */
const shop = HttpApiBuilder.Router.use((router) => router.get("/", HttpServerResponse.text("Example Shop")))

/**
 * The whole application as one layer: the server on `port` (0 for any free one) and the engine
 * on `filename` (`:memory:` for a throwaway database), both kept in the output for callers.
 */
export const layer = (port: number, filename: string) =>
  HttpApiBuilder.serve(HttpMiddleware.logger).pipe(
    Layer.provide(shop),
    Layer.provide(HttpApiLayer.layer()),
    HttpServer.withLogAddress,
    Layer.provideMerge(pixgate(filename)),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
    Layer.provide(Logger.json)
  )

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  NodeRuntime.runMain(Layer.launch(layer(Number(process.env.PORT ?? 3000), "./data/pixgate.db")), {
    disablePrettyLogger: true
  })
}
