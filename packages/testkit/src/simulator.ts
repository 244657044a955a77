/**
 * The PSP simulator, for the tests of packages that do not depend on it (the live gateway's): the
 * same module `@pixgate/psp-simulator` exports.
 */
export { PspSimulator } from "@pixgate/psp-simulator"
