/**
 * An engine in its own process for the crash test: live gateway to the simulator whose URL and
 * certificates come as one JSON argument, the bank callback route, a short job lease. Prints
 * `{"type":"listening","url":...}` once it serves.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { ApiPix, Settings } from "@pixgate/gateway-apipix"
import { Pixgate } from "@pixgate/http/node"
import { Duration, Redacted } from "effect"
import { storeOf } from "./database.js"

interface Options {
  readonly database: string
  readonly baseUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly certPem: string
  readonly keyPem: string
  readonly caPem: string
  readonly pixKey: string
  readonly secret: string
}

const options = JSON.parse(process.argv[2]) as Options
const settings: Settings.ApiPixSettings = {
  baseUrl: options.baseUrl,
  clientId: options.clientId,
  clientSecret: Redacted.make(options.clientSecret),
  scopes: Settings.defaults.scopes,
  certificate: Settings.pem(options.certPem, options.keyPem),
  ca: options.caPem,
  pixKey: options.pixKey,
  timeoutMs: 60_000,
  pollDelayMs: 250,
  reconcileIntervalMs: 1000
}
const pixgate = await Pixgate.make({
  store: storeOf(options.database),
  liveGateway: ApiPix.layerNode(settings),
  bankCallbacks: { secret: options.secret },
  engine: { config: { jobLease: Duration.seconds(2) } },
  rateLimit: false,
  log: { level: "warning", write: (line) => process.stderr.write(`${line}\n`) }
})
const server = createServer((req, res) => pixgate.nodeHandler(req, res))
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo
  process.stdout.write(`${JSON.stringify({ type: "listening", url: `http://127.0.0.1:${port}` })}\n`)
})
process.once("SIGTERM", () => {
  server.close()
  void pixgate.dispose().then(() => process.exit(0))
})
