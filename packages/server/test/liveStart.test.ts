/**
 * `pixgate serve` in live mode checks its settings when it starts: a certificate, key, PKCS#12
 * file or passphrase, CA, base URL or PIX key that cannot work stops it with exit code 2 and one
 * line naming the variable, instead of a server whose live charges fail later. The same for the
 * webhook address settings (`PIXGATE_ALLOW_PRIVATE_WEBHOOKS` needs `PIXGATE_PROFILE=development`).
 * Certificates are made fresh by the PSP simulator's `Certificates` module into a temp dir.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { promisify } from "node:util"
import { ApiPix, Settings } from "@pixgate/gateway-apipix"
import { Certificates, PspSimulator } from "@pixgate/psp-simulator"
import { send } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"
import * as Server from "../src/Server.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-live-start-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const pki = Certificates.generatePki({ pkcs12Passphrase: "right-passphrase" })
const other = Certificates.generatePki()
const files = {
  "cert.pem": pki.clientCertPem,
  "key.pem": pki.clientKeyPem,
  "ca.pem": pki.caPem,
  "client.p12": pki.clientPkcs12,
  "other-key.pem": other.clientKeyPem,
  "garbage.p12": "not a PKCS#12 file",
  "garbage.pem": "hello"
}
for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)

/** Complete live settings (relative paths: `serve` reads them from its working directory). */
const live = {
  PIXGATE_LIVE_BASE_URL: "https://127.0.0.1:9",
  PIXGATE_LIVE_CLIENT_ID: "pixgate",
  PIXGATE_LIVE_CLIENT_SECRET: "pixgate-secret",
  PIXGATE_LIVE_CERT_FILE: "cert.pem",
  PIXGATE_LIVE_KEY_FILE: "key.pem",
  PIXGATE_LIVE_CA_FILE: "ca.pem",
  PIXGATE_LIVE_PIX_KEY: "recebimentos@pixgate.example",
  PIXGATE_LIVE_CALLBACK_SECRET: "c".repeat(40)
}
const pkcs12 = {
  ...live,
  PIXGATE_LIVE_CERT_FILE: "",
  PIXGATE_LIVE_KEY_FILE: "",
  PIXGATE_LIVE_PFX_FILE: "client.p12",
  PIXGATE_LIVE_PFX_PASSPHRASE: "right-passphrase"
}

const token = "live-start-admin-token"

/** Runs `pixgate serve` in-process as the CLI does; `listening` resolves with its URL. */
const serve = (env: Record<string, string>) => {
  let stop!: () => void
  const stopSignal = new Promise<void>((resolve) => {
    stop = resolve
  })
  let out = ""
  let err = ""
  let announce!: (url: string) => void
  const listening = new Promise<string>((resolve) => {
    announce = resolve
  })
  const exit = Cli.run(["serve"], {
    env: { PORT: "0", PIXGATE_DATABASE: `sqlite:${join(dir, `${Math.random()}.db`)}`, ...env },
    cwd: dir,
    stdout: (text) => {
      out += text
      const match = /"url":"(http:[^"]+)"/.exec(out)
      if (match) announce(match[1])
    },
    stderr: (text) => {
      err += text
    },
    stopSignal
  })
  return { listening, exit, stop, stderr: () => err, stdout: () => out }
}

/** Each bad setting: the environment, and the start of the one line `serve` prints. */
const refused: ReadonlyArray<readonly [string, Record<string, string>, RegExp]> = [
  [
    "cert and key swapped",
    { ...live, PIXGATE_LIVE_CERT_FILE: "key.pem", PIXGATE_LIVE_KEY_FILE: "cert.pem" },
    /^pixgate: PIXGATE_LIVE_CERT_FILE: not a PEM certificate \(.*no start line\)$/
  ],
  [
    "a key that is not the certificate's",
    { ...live, PIXGATE_LIVE_KEY_FILE: "other-key.pem" },
    /^pixgate: PIXGATE_LIVE_KEY_FILE: is not the key of the certificate in PIXGATE_LIVE_CERT_FILE$/
  ],
  [
    "a key file that is no key",
    { ...live, PIXGATE_LIVE_KEY_FILE: "garbage.pem" },
    /^pixgate: PIXGATE_LIVE_KEY_FILE: not a PEM private key/
  ],
  [
    "a certificate file that does not exist",
    { ...live, PIXGATE_LIVE_CERT_FILE: "missing.pem" },
    /^pixgate: PIXGATE_LIVE_CERT_FILE: cannot read missing.pem \(ENOENT\)$/
  ],
  [
    "a wrong PKCS#12 passphrase",
    { ...pkcs12, PIXGATE_LIVE_PFX_PASSPHRASE: "wrong" },
    /^pixgate: PIXGATE_LIVE_PFX_PASSPHRASE: wrong passphrase for PIXGATE_LIVE_PFX_FILE \(mac verify failure\)$/
  ],
  [
    "a file that is not PKCS#12",
    { ...pkcs12, PIXGATE_LIVE_PFX_FILE: "garbage.p12" },
    /^pixgate: PIXGATE_LIVE_PFX_FILE: not a readable PKCS#12 file/
  ],
  [
    "PEM and PKCS#12 both",
    { ...live, PIXGATE_LIVE_PFX_FILE: "client.p12", PIXGATE_LIVE_PFX_PASSPHRASE: "right-passphrase" },
    /^pixgate: PIXGATE_LIVE_PFX_FILE and PIXGATE_LIVE_CERT_FILE\/PIXGATE_LIVE_KEY_FILE are both set/
  ],
  [
    "a CA file that is no certificate",
    { ...live, PIXGATE_LIVE_CA_FILE: "garbage.pem" },
    /^pixgate: PIXGATE_LIVE_CA_FILE: not a PEM certificate/
  ],
  [
    "a base URL that is not a URL",
    { ...live, PIXGATE_LIVE_BASE_URL: "not-a-url" },
    /^pixgate: PIXGATE_LIVE_BASE_URL: "not-a-url" is not an absolute URL/
  ],
  [
    "a plain-http base URL",
    { ...live, PIXGATE_LIVE_BASE_URL: "http://127.0.0.1:8443" },
    /^pixgate: PIXGATE_LIVE_BASE_URL: must be an https URL/
  ],
  [
    "a PIX key that is none",
    { ...live, PIXGATE_LIVE_PIX_KEY: "recebimentos" },
    /^pixgate: PIXGATE_LIVE_PIX_KEY: not a PIX key/
  ],
  [
    "private live webhooks without the development profile",
    { PIXGATE_ALLOW_PRIVATE_WEBHOOKS: "1" },
    /^pixgate: PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1 is for a local trial: it needs PIXGATE_PROFILE=development/
  ],
  [
    "private live webhooks in the production profile",
    { PIXGATE_ALLOW_PRIVATE_WEBHOOKS: "1", PIXGATE_PROFILE: "production" },
    /^pixgate: PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1 is for a local trial/
  ],
  [
    "an unknown profile",
    { PIXGATE_PROFILE: "staging" },
    /^pixgate: PIXGATE_PROFILE must be production or development$/
  ],
  [
    "an unknown private-targets value",
    { PIXGATE_WEBHOOK_PRIVATE_TARGETS: "maybe" },
    /^pixgate: PIXGATE_WEBHOOK_PRIVATE_TARGETS must be allow or deny$/
  ]
]

describe("pixgate serve refuses live settings that cannot work", () => {
  it.each(refused)("%s: exit 2, one line naming the variable", async (_, env, message) => {
    const server = serve(env)
    expect(await server.exit).toBe(2)
    expect(
      server
        .stderr()
        .split("\n")
        .filter((l) => l !== "")
    ).toEqual([expect.stringMatching(message)])
    expect(server.stdout()).not.toContain("Pixgate listening")
  })

  it("starts with good PEM or PKCS#12 settings", async () => {
    for (const env of [live, pkcs12]) {
      const server = serve(env)
      const url = await server.listening
      expect((await send(url, "GET", "/api/health")).status).toBe(200)
      server.stop()
      expect(await server.exit).toBe(0)
    }
  })

  it("Server.start, called with settings in code, names the field", async () => {
    const read = must(
      Settings.fromEnv({ ...live, PIXGATE_LIVE_KEY_FILE: "other-key.pem" }, (p) =>
        Buffer.from(files[p as keyof typeof files])
      ),
      'Settings.fromEnv({ ...live, PIXGATE_LIVE_KEY_FILE: "other-key.pem" }, (p) => Buffer.from(files[p as keyof typeof files]) )'
    )
    await expect(
      Server.start({ port: 0, database: `sqlite:${join(dir, "code.db")}`, live: read })
    ).rejects.toThrow("certificate.key: is not the key of the certificate in certificate.cert")
  })

  it("ApiPix.layerNode fails with a SettingsError naming the setting", async () => {
    const read = must(
      Settings.fromEnv({ ...live, PIXGATE_LIVE_BASE_URL: "not-a-url" }, (p) =>
        Buffer.from(files[p as keyof typeof files])
      ),
      'Settings.fromEnv({ ...live, PIXGATE_LIVE_BASE_URL: "not-a-url" }, (p) => Buffer.from(files[p as keyof typeof files]) )'
    )
    const exit = await Effect.runPromiseExit(Layer.build(ApiPix.layerNode(read.settings)).pipe(Effect.scoped))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit))
      expect(Cause.failureOption(exit.cause)).toEqual(
        Option.some(expect.objectContaining({ _tag: "SettingsError", setting: "baseUrl" }))
      )
  })
})

describe("a gateway misconfiguration found at the first call", () => {
  it("a CA that did not sign the PSP's certificate: live charges answer 502, logged, never 500", async () => {
    const psp = await PspSimulator.start({ pki, pixKeys: [live.PIXGATE_LIVE_PIX_KEY] })
    writeFileSync(join(dir, "other-ca.pem"), other.caPem)
    const server = serve({
      ...live,
      PIXGATE_LIVE_BASE_URL: psp.url,
      PIXGATE_LIVE_CA_FILE: "other-ca.pem",
      PIXGATE_ADMIN_TOKEN: token
    })
    try {
      const url = await server.listening
      const auth = { authorization: `Bearer ${token}` }
      const merchant = await send(url, "POST", "/admin/merchants", {
        body: { name: "Live" },
        headers: auth
      })
      const charge = await send(url, "POST", "/api/v1/charges", {
        key: merchant.body.liveKey,
        body: { amount: 10 }
      })
      expect([charge.status, charge.body.code]).toEqual([502, "gateway_error"])
      // One log line says what went wrong at the bank's door.
      // (The child writes its log in batches: the line may reach the pipe after the answer.)
      await expect
        .poll(() => server.stdout(), { timeout: testWaitMs })
        .toMatch(/"status":502,"code":"gateway_error","cause":"Creating the charge: .*certificate/)
      expect(server.stdout()).not.toMatch(/"status":500/)
    } finally {
      server.stop()
      await server.exit
      await psp.close()
    }
  })
})

describe("pixgate serve as a child process", () => {
  const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
  const tsx = pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")
  ).href

  it("a wrong PKCS#12 passphrase stops the process with one line on stderr", async () => {
    const env = {
      ...process.env,
      PORT: "0",
      PIXGATE_DATABASE: `sqlite:${join(dir, "child.db")}`,
      ...pkcs12,
      PIXGATE_LIVE_PFX_PASSPHRASE: "wrong"
    }
    const failed = await promisify(execFile)(
      process.execPath,
      ["--import", tsx, "--conditions=@pixgate/source", bin, "serve"],
      { cwd: dir, env, timeout: testWaitMs }
    ).catch((e: { code: number; stderr: string; stdout: string }) => e)
    expect("code" in failed ? failed.code : 0).toBe(2)
    expect(failed.stderr).toBe(
      "pixgate: PIXGATE_LIVE_PFX_PASSPHRASE: wrong passphrase for PIXGATE_LIVE_PFX_FILE (mac verify failure)\n"
    )
    expect(failed.stdout).not.toContain("Pixgate listening")
  })
})
