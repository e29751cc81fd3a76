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

  it('never lets a key reach a JSON log line', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = createLogger({ format: 'json', stream });
    logger.info('connecting with AccountKey=supersecret==', { masterKey: 'supersecret==', operationId: 'op-1' });
    const text = lines.join('');
    expect(text).not.toContain('supersecret');
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'info', operationId: 'op-1', masterKey: '***' });
  });
});
