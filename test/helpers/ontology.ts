import { seededRandom } from './simulated.js';

/**
 * Several sources of one business, generated with noise, that name the same entities differently: the ground
 * truth of ontology extraction. Each source is a list of records; `truth` says which (source, field) pairs hold
 * which entity's key, which spellings are one value, which rules hold and which dates precede which.
 */
export interface BusinessData {
  sources: Record<string, Array<Record<string, unknown>>>;
  /** Entity -> the `source.field` pairs holding its key. */
  keys: Record<string, string[]>;
  /** Canonical value -> its other spellings, as written in the data. */
  spellings: Record<string, string[]>;
}

const STATES: Array<[string, string]> = [['New York', 'NY'], ['California', 'CA'], ['New Jersey', 'NJ'], ['North Carolina', 'NC'], ['Texas', 'TX']];
const COUNTRY_CURRENCY: Array<[string, string]> = [['United States', 'USD'], ['Germany', 'EUR'], ['France', 'EUR'], ['Japan', 'JPY'], ['United Kingdom', 'GBP']];
const SEGMENTS = ['consumer', 'small business', 'enterprise'];
const CHANNELS = ['email', 'phone', 'chat'];

/**
 * `seed` varies names' order, sizes, noise and which spellings appear; `names` picks one of several namings of
 * each key (so a test can run on namings it was not written against).
 */
export function businessData(seed: number, options: { customers?: number; orders?: number; names?: number } = {}): BusinessData {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random.uniform() * items.length)]!;
  const customers = options.customers ?? 400;
  const orders = options.orders ?? 1500;
  const variant = options.names ?? seed;
  const naming = <T>(choices: readonly T[]) => choices[variant % choices.length]!;
  const customerKey = (i: number) => `C-${String(10_000 + i * 7).padStart(6, '0')}`;
  const productKey = (i: number) => `SKU${4000 + i * 3}`;
  const products = 60;
  const day = (offset: number) => new Date(Date.UTC(2024, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

  const customerId = naming(['cust_id', 'CustomerID', 'customer_key']);
  const orderCustomer = naming(['customerId', 'cust_no', 'client_id']);
  const ticketCustomer = naming(['client', 'customer', 'account_customer']);
  const sessionCustomer = naming(['party', 'holder', 'visitor_ref']);
  const productId = naming(['sku', 'product_id', 'item_code']);
  const lineProduct = naming(['product_code', 'prod_id', 'article']);

  const customerRows = Array.from({ length: customers }, (_, i) => {
    const [state, abbreviation] = pick(STATES);
    // Noise: a fifth of the states written as abbreviations, a tenth in lower case.
    const roll = random.uniform();
    const written = roll < 0.2 ? abbreviation : roll < 0.3 ? state.toLowerCase() : state;
    return { [customerId]: customerKey(i), full_name: `Customer ${i}`, state: written, segment: pick(SEGMENTS), signup_date: day(Math.floor(random.uniform() * 200)) };
  });
  const productRows = Array.from({ length: products }, (_, i) => ({ [productId]: productKey(i), category: pick(['toys', 'books', 'garden', 'kitchen']), list_price: Math.round(5 + random.uniform() * 95) }));
  const orderRows = Array.from({ length: orders }, (_, i) => {
    const [country, currency] = pick(COUNTRY_CURRENCY);
    const ordered = 200 + Math.floor(random.uniform() * 150);
    return {
      order_id: 50_000 + i,
      [orderCustomer]: customerKey(Math.floor(random.uniform() * customers)),
      order_date: day(ordered),
      ship_date: day(ordered + 1 + Math.floor(random.uniform() * 6)),
      country,
      currency,
      amount: Math.round((10 + random.uniform() * 490) * 100) / 100,
    };
  });
  const lineRows = orderRows.slice(0, Math.floor(orders / 2)).map((order) => ({ order_ref: order.order_id, [lineProduct]: productKey(Math.floor(random.uniform() * products)), quantity: 1 + Math.floor(random.uniform() * 5) }));
  const ticketRows = Array.from({ length: Math.floor(customers * 0.8) }, (_, i) => ({
    ticket_no: `T${900_000 + i}`,
    [ticketCustomer]: customerKey(Math.floor(random.uniform() * customers)),
    opened_at: day(250 + Math.floor(random.uniform() * 100)),
    channel: pick(CHANNELS),
    satisfaction: 1 + Math.floor(random.uniform() * 5),
  }));
  const sessionRows = Array.from({ length: customers }, () => ({
    [sessionCustomer]: customerKey(Math.floor(random.uniform() * customers)),
    pages_viewed: 1 + Math.floor(random.uniform() * 30),
    minutes: Math.round(random.uniform() * 600) / 10,
  }));
  const spellings: Record<string, string[]> = {};
  for (const [state, abbreviation] of STATES) spellings[state] = [abbreviation, state.toLowerCase()];
  return {
    sources: { customers: customerRows, products: productRows, orders: orderRows, order_lines: lineRows, tickets: ticketRows, sessions: sessionRows },
    keys: {
      customer: [`customers.${customerId}`, `orders.${orderCustomer}`, `tickets.${ticketCustomer}`, `sessions.${sessionCustomer}`],
      product: [`products.${productId}`, `order_lines.${lineProduct}`],
      order: ['orders.order_id', 'order_lines.order_ref'],
    },
    spellings,
  };
}
