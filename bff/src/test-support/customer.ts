/** The customer the tests' payment links and storefront-like orders are made for. */
export const TEST_CUSTOMER = {
  email: 'buyer@example.com',
  address1: '1 Test Street',
  city: 'Testville',
  zipCode: '12345',
  country: 'DE',
  phone: '+49 301234567',
};
