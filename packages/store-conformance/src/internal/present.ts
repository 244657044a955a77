/** The value the suite just wrote or listed, or a failure naming what was not there. */
export const present = <A>(value: A | null | undefined, what: string): A => {
  if (value === null || value === undefined) throw new Error(`Expected ${what}, found none`)
  return value
}
