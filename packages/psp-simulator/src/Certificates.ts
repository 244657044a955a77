import { generateKeyPairSync, randomBytes } from "node:crypto"
import forge from "node-forge"

/**
 * The simulator's test PKI, made fresh on every start: one CA that signs the server certificate
 * (presented by the HTTPS API), the client certificate (which API callers must present) and the
 * certificate the simulator itself presents when it delivers callbacks over HTTPS.
 */
export interface TestPki {
  /** The CA certificate (PEM): trust it to reach the simulator; require it to accept its callbacks. */
  readonly caPem: string
  /** The API server's certificate (PEM), valid for localhost, 127.0.0.1, ::1 and any extra names. */
  readonly serverCertPem: string
  /** The API server's private key (PEM). */
  readonly serverKeyPem: string
  /** The client certificate an API caller presents (PEM). */
  readonly clientCertPem: string
  /** The private key of the client certificate (PEM, unencrypted). */
  readonly clientKeyPem: string
  /** The same client certificate, key and CA chain as a PKCS#12 file (AES-256 protected). */
  readonly clientPkcs12: Buffer
  /** The passphrase of `clientPkcs12`. */
  readonly clientPkcs12Passphrase: string
  /** The certificate the simulator presents when it posts callbacks to an HTTPS webhook (PEM). */
  readonly callbackCertPem: string
  /** The private key of `callbackCertPem` (PEM). */
  readonly callbackKeyPem: string
}

/** Options of `generatePki`. */
export interface PkiOptions {
  /** Extra DNS names for the server certificate (localhost, 127.0.0.1 and ::1 are always in). */
  readonly hostnames?: ReadonlyArray<string>
  /** Passphrase of the PKCS#12 file; a random one when absent. */
  readonly pkcs12Passphrase?: string
}

const dayMs = 24 * 60 * 60 * 1000

/** An RSA key pair made by Node's native crypto (fast), handed to forge as PEM. */
const keyPair = () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" }
  })
  return {
    privateKeyPem: privateKey,
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    publicKey: forge.pki.publicKeyFromPem(publicKey)
  }
}

const subject = (commonName: string): Array<forge.pki.CertificateField> => [
  { name: "commonName", value: commonName },
  { name: "organizationName", value: "Pixgate PSP simulator" }
]

const isIp = (name: string) => /^[0-9.]+$/.test(name) || name.includes(":")

interface Issued {
  readonly cert: forge.pki.Certificate
  readonly certPem: string
  readonly keyPem: string
  readonly key: forge.pki.rsa.PrivateKey
}

const issue = (
  commonName: string,
  extensions: ReadonlyArray<object>,
  issuer?: { readonly cert: forge.pki.Certificate; readonly key: forge.pki.rsa.PrivateKey }
): Issued => {
  const keys = keyPair()
  const cert = forge.pki.createCertificate()
  cert.publicKey = keys.publicKey
  // A leading 0x01 byte keeps the DER integer positive.
  cert.serialNumber = "01" + randomBytes(15).toString("hex")
  const now = Date.now()
  cert.validity.notBefore = new Date(now - dayMs)
  cert.validity.notAfter = new Date(now + 365 * dayMs)
  cert.setSubject(subject(commonName))
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : subject(commonName))
  cert.setExtensions([...extensions, { name: "subjectKeyIdentifier" }])
  cert.sign(issuer ? issuer.key : keys.privateKey, forge.md.sha256.create())
  return { cert, certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKeyPem, key: keys.privateKey }
}

/** Generates a CA, the server, client and callback certificates, and the client's PKCS#12 file. */
export const generatePki = (options: PkiOptions = {}): TestPki => {
  const ca = issue("Pixgate PSP simulator test CA", [
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }
  ])
  const names = ["localhost", "127.0.0.1", "::1", ...(options.hostnames ?? [])]
  const server = issue(
    "localhost",
    [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: names.map((name) => (isIp(name) ? { type: 7, ip: name } : { type: 2, value: name }))
      }
    ],
    ca
  )
  const clientExtensions = [
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", clientAuth: true }
  ]
  const client = issue("pixgate-client", clientExtensions, ca)
  const callback = issue("psp-simulator-callbacks", clientExtensions, ca)
  const passphrase = options.pkcs12Passphrase ?? randomBytes(12).toString("hex")
  const p12 = forge.pkcs12.toPkcs12Asn1(client.key, [client.cert, ca.cert], passphrase, {
    algorithm: "aes256",
    friendlyName: "pixgate-client"
  })
  return {
    caPem: ca.certPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
    clientPkcs12: Buffer.from(forge.asn1.toDer(p12).getBytes(), "binary"),
    clientPkcs12Passphrase: passphrase,
    callbackCertPem: callback.certPem,
    callbackKeyPem: callback.keyPem
  }
}

let sharedPki: TestPki | undefined

/**
 * One PKI per process, generated on first use: RSA key generation costs seconds on a loaded
 * machine, and simulators started in one test process gain nothing from distinct certificates.
 */
export const shared = (): TestPki => {
  sharedPki ??= generatePki()
  return sharedPki
}
