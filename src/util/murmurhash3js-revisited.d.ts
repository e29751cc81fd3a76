declare module 'murmurhash3js-revisited' {
  const murmur: {
    x64: { hash128(bytes: Uint8Array, seed?: number): string };
    x86: { hash32(bytes: Uint8Array, seed?: number): number; hash128(bytes: Uint8Array, seed?: number): string };
  };
  export default murmur;
}
