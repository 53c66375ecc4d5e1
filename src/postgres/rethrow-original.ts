/**
 * postgres.js and PGlite roll back when the callback throws, but may replace its error (with
 * an earlier failed query's, or the ROLLBACK's own): keep the callback's error and rethrow it.
 */
export async function rethrowingOriginal<T>(run: (fail: (error: unknown) => never) => Promise<T>): Promise<T> {
  let failure: { error: unknown } | undefined;
  try {
    return await run((error) => {
      failure = { error };
      throw error;
    });
  } catch (error) {
    throw failure ? failure.error : error;
  }
}
