// Pages a merchant's customer may land on. They are not part of the staff SPA (which would greet a
// customer with the staff sign-in), carry no data, and need no session.
import { Router } from 'express';

/** Where a hosted payment form sends the customer back when a link names no return address. */
export const PAYMENT_LINK_DONE_PATH = '/payment-links/done';

const DONE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Thank you</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4f5f7; color: #1f2328; }
  main { background: #fff; border: 1px solid #d8dbe0; border-radius: 8px; padding: 32px 40px; max-width: 28rem; }
  h1 { font-size: 1.4rem; margin: 0 0 8px; }
  p { margin: 0; }
</style>
</head>
<body>
<main>
  <h1>Thank you</h1>
  <p>Your details were sent to the payment provider. The merchant is told the outcome directly; you can close this page.</p>
</main>
</body>
</html>
`;

export function customerPages(): Router {
  const router = Router();
  router.get(PAYMENT_LINK_DONE_PATH, (_req, res) => {
    res.set('Cache-Control', 'no-store').type('html').send(DONE_PAGE);
  });
  return router;
}
