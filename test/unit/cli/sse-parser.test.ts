import { SseParser } from '../../../src/cli/sse-parser';

describe('SseParser', () => {
  it('returns events split across chunks at any byte, skipping comments', () => {
    const text = ': connected\n\nevent: transitions\ndata: {"a":1}\n\n: keep-alive\n\nevent: leases\r\ndata: {"b":2}\r\n\r\n';
    for (let cut = 1; cut < text.length; cut++) {
      const parser = new SseParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(events).toEqual([
        { event: 'transitions', data: '{"a":1}' },
        { event: 'leases', data: '{"b":2}' },
      ]);
    }
  });

  it('joins multi-line data and names unnamed events "message"', () => {
    expect(new SseParser().push('data: one\ndata:two\n\n')).toEqual([{ event: 'message', data: 'one\ntwo' }]);
  });

  it('keeps an unfinished event until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('event: x\ndata: 1\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'x', data: '1' }]);
  });
});
