/** Pixgate under /payments in Fastify 5: every method goes to Pixgate's Node handler on the raw request,
 * Fastify's body parsing off in that scope; Fastify keeps the prefix in the raw URL, so it is Pixgate's
 * basePath. From the repository root: PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/fastify.ts */
import { pathToFileURL } from "node:url"
import { Pixgate } from "@pixgate/http/node"
import { SqliteStore } from "@pixgate/store-sqlite"
import Fastify, { type FastifyInstance } from "fastify"

export const start = async (port = Number(process.env.PORT ?? 3000), filename = "./data/pixgate.db") => {
  const pixgate = await Pixgate.make({ store: SqliteStore.layer({ filename }), basePath: "/payments" })
  const app = Fastify()
  const payments = async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null))
    scope.all("/*", (request, reply) => {
      reply.hijack()
      pixgate.nodeHandler(request.raw, reply.raw)
    })
  }
  await app.register(payments, { prefix: "/payments" })
  const url = await app.listen({ port, host: "127.0.0.1" })
  return { pixgate, url, close: () => app.close().then(() => pixgate.dispose()) }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { url, close } = await start()
  console.log(`Shop on ${url}, Pixgate under ${url}/payments/api/v1 (docs: ${url}/payments/api/docs)`)
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, close)
}
