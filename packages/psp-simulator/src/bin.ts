import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import type { SendOutcome } from "./Bank.js"
import { start } from "./PspSimulator.js"

const usage = `Usage: pnpm psp-simulator [options]

Runs a local PSP (API Pix + Efí-style sends) over mTLS, with a control API over plain HTTP.

  --port <n>            HTTPS API port (default 8443)
  --control-port <n>    control API port (default 8444)
  --host <h>            interface (default 127.0.0.1)
  --out <dir>           where to write the certificates (default: a new temporary directory)
  --client-id <id>      OAuth2 client id (default pixgate)
  --client-secret <s>   OAuth2 client secret (default pixgate-secret)
  --pix-key <key>       the account's Pix key (repeatable; default: any key is accepted)
  --token-ttl <s>       access token lifetime in seconds (default 3600)
  --sends <mode>        manual | settle | reject | instant: what happens to an accepted send
                        (default settle; instant: the send's answer already says REALIZADO)
  --help                this text
`

const fail = (message: string) => {
  process.stderr.write(`${message}\n\n${usage}`)
  process.exit(2)
}

const parse = () => {
  try {
    return parseArgs({
      options: {
        port: { type: "string", default: "8443" },
        "control-port": { type: "string", default: "8444" },
        host: { type: "string", default: "127.0.0.1" },
        out: { type: "string" },
        "client-id": { type: "string", default: "pixgate" },
        "client-secret": { type: "string", default: "pixgate-secret" },
        "pix-key": { type: "string", multiple: true },
        "token-ttl": { type: "string", default: "3600" },
        sends: { type: "string", default: "settle" },
        help: { type: "boolean", default: false }
      }
    })
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
}

const { values } = parse()
const wholeNumber = (name: "port" | "control-port" | "token-ttl", min: number) => {
  const value = Number(values[name])
  return Number.isInteger(value) && value >= min
    ? value
    : fail(`--${name} must be a whole number from ${min}`)
}

if (values.help) {
  process.stdout.write(usage)
  process.exit(0)
}
if (!["manual", "settle", "reject", "instant"].includes(values.sends))
  fail("--sends must be manual, settle, reject or instant")

const simulator = await start({
  host: values.host,
  port: wholeNumber("port", 0),
  controlPort: wholeNumber("control-port", 0),
  clients: [{ clientId: values["client-id"], clientSecret: values["client-secret"] }],
  tokenTtlSeconds: wholeNumber("token-ttl", 1),
  sendOutcome: values.sends as SendOutcome,
  ...(values["pix-key"] ? { pixKeys: values["pix-key"] } : {})
})

const out = values.out ? resolve(values.out) : mkdtempSync(join(tmpdir(), "psp-simulator-"))
mkdirSync(out, { recursive: true })
const files = {
  ca: join(out, "ca.pem"),
  cert: join(out, "client-cert.pem"),
  key: join(out, "client-key.pem"),
  p12: join(out, "client.p12")
}
writeFileSync(files.ca, simulator.tls.caPem)
writeFileSync(files.cert, simulator.tls.clientCertPem)
writeFileSync(files.key, simulator.tls.clientKeyPem, { mode: 0o600 })
writeFileSync(files.p12, simulator.tls.clientPkcs12, { mode: 0o600 })
writeFileSync(join(out, "client.p12.passphrase"), simulator.tls.clientPkcs12Passphrase, { mode: 0o600 })

process.stdout.write(`PSP simulator
  API (mTLS)      ${simulator.url}   (API Pix under /v2, sends under /v3/gn and /v2/gn)
  control (HTTP)  ${simulator.controlUrl}
  locations       ${simulator.locationUrl}   (open HTTPS: a charge's location answers its payload as a JWS)
  OAuth2 client   ${simulator.client.clientId} / ${simulator.client.clientSecret}
  CA              ${files.ca}
  client cert     ${files.cert}
  client key      ${files.key}
  client PKCS#12  ${files.p12} (passphrase in ${files.p12}.passphrase)

Try:
  curl --cacert ${files.ca} --cert ${files.cert} --key ${files.key} \\
    -u ${simulator.client.clientId}:${simulator.client.clientSecret} -d '{"grant_type":"client_credentials"}' \\
    -H 'content-type: application/json' ${simulator.url}/oauth/token
  curl ${simulator.controlUrl}/state
`)

const stop = () => {
  void simulator.close().then(() => process.exit(0))
}
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
