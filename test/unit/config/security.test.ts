import { loadConfig } from '../../../src/config';

describe('security configuration', () => {
  test('tools reach nothing beyond the sandbox by default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      SCRATCHPAD_SHELL_UNCONFINED: false,
      SCRATCHPAD_FETCH_ALLOW: [],
      SCRATCHPAD_FETCH_ALLOW_PRIVATE: [],
      SCRATCHPAD_FETCH_PORTS: [80, 443],
      SCRATCHPAD_FS_WRITE_MAX_BYTES: 10 * 1024 * 1024,
    });
  });

  test('an operator widens them explicitly', () => {
    const config = loadConfig({
      SCRATCHPAD_SHELL_UNCONFINED: 'true',
      SCRATCHPAD_FETCH_ALLOW: 'example.com, *.example.org',
      SCRATCHPAD_FETCH_ALLOW_PRIVATE: '127.0.0.1/32,10.0.0.0/8',
      SCRATCHPAD_FETCH_PORTS: '443,8080',
    });
    expect(config).toMatchObject({
      SCRATCHPAD_SHELL_UNCONFINED: true,
      SCRATCHPAD_FETCH_ALLOW: ['example.com', '*.example.org'],
      SCRATCHPAD_FETCH_ALLOW_PRIVATE: ['127.0.0.1/32', '10.0.0.0/8'],
      SCRATCHPAD_FETCH_PORTS: [443, 8080],
    });
  });

  test.each([
    ['SCRATCHPAD_FETCH_PORTS', '80,http'],
    ['SCRATCHPAD_FETCH_ALLOW_PRIVATE', '127.0.0.1'],
    ['SCRATCHPAD_SHELL_UNCONFINED', 'yes please'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`invalid configuration:[\\s\\S]*${name}`));
  });
});
