import { Writable } from 'stream';
import { createLogger } from '../../../src/logging/logger';
import { redact, redactString } from '../../../src/logging/redact';

describe('secret redaction', () => {
  it('masks values under secret-looking keys, at any depth', () => {
    const out = redact({ cosmos: { endpoint: 'http://x', key: 'abc==' }, bearerToken: 't', subscription: 's', leaseToken: '-10' });
    expect(out).toEqual({ cosmos: { endpoint: 'http://x', key: '***' }, bearerToken: '***', subscription: 's', leaseToken: '-10' });
  });

  it('masks secrets embedded in strings', () => {
    expect(redactString('Authorization: Bearer eyJhbGciOi.abc.def')).toBe('Authorization: Bearer ***');
    expect(redactString('Endpoint=sb://h;SharedAccessKeyName=k;SharedAccessKey=c2VjcmV0=')).toContain('SharedAccessKey=***');
    expect(redactString('AccountEndpoint=https://a/;AccountKey=C2y6yDjf5==;')).toBe('AccountEndpoint=https://a/;AccountKey=***;');
    expect(redactString('type=master&ver=1.0&sig=abcdEF%3D')).toBe('type=master&ver=1.0&sig=***');
  });

  it('masks the credentials of a URL (the password, or a user part alone), leaving the rest readable', () => {
    expect(redactString('posting to https://user:s3cret@collector.example:4318/v1/traces')).toBe(
      'posting to https://user:***@collector.example:4318/v1/traces',
    );
    expect(redactString('cloning https://ghp_abc123@github.com/o/r.git')).toBe('cloning https://***@github.com/o/r.git');
    expect(redactString('"http://u:p%40ss@127.0.0.1:9/x"')).toBe('"http://u:***@127.0.0.1:9/x"');
    // No credentials: nothing to mask, even with an @ later in the URL or a port.
    for (const plain of ['https://host:443/a@b', 'amqps://127.0.0.1:5671', 'https://host/path?u=a:b@c', 'mailto:a@b.example'])
      expect(redactString(plain)).toBe(plain);
  });

  it('never lets a key reach a JSON log line', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = createLogger({ format: 'json', stream });
    logger.info('connecting with AccountKey=supersecret==', {
      masterKey: 'supersecret==',
      operationId: 'op-1',
      url: 'https://user:supersecret@host/',
    });
    const text = lines.join('');
    expect(text).not.toContain('supersecret');
    expect(JSON.parse(lines[0])).toMatchObject({ url: 'https://user:***@host/' });
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'info', operationId: 'op-1', masterKey: '***' });
  });
});
