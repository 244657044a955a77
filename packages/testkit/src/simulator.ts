/**
 * The PSP simulator, for the tests of packages that do not depend on it (the live gateways'): the
 * same modules `@pixgate/psp-simulator` exports (API Pix and Asaas).
 */
export { AsaasSimulator, PspSimulator } from "@pixgate/psp-simulator"
