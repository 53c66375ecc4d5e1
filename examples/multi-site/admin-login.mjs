// The login in front of the delivery ledger page: HTTP Basic with one password, ADMIN_PASSWORD.
// Replace it with your app's own login; the page only asks `authorize(req)` whether to show.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Express middleware: lets through a request whose Basic credentials are `admin` and
 * `password` (compared in constant time), marking it `req.admin = true`; asks the browser for
 * them otherwise. Without a password the page stays closed.
 *
 * @example
 * app.use('/admin/deliveries', adminLogin(process.env.ADMIN_PASSWORD), ledgerPage(ledger, { authorize: (req) => req.admin === true }));
 */
export function adminLogin(password) {
  const expected = password ? digest(`admin:${password}`) : undefined;
  return (req, res, next) => {
    if (!expected) {
      res.status(403).type('text/plain').send('Set ADMIN_PASSWORD to open the delivery ledger.');
      return;
    }
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const given = scheme === 'Basic' && encoded ? Buffer.from(encoded, 'base64').toString('utf8') : '';
    if (!timingSafeEqual(digest(given), expected)) {
      res
        .status(401)
        .set('www-authenticate', 'Basic realm="deliveries", charset="UTF-8"')
        .type('text/plain')
        .send('Log in.');
      return;
    }
    req.admin = true;
    next();
  };
}
