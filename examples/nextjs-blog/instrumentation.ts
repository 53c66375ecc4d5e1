// Runs once when the server starts: open the database now, so the first request does not wait
// for PGlite to start.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === 'nodejs') await (await import('./lib/site')).site();
}
