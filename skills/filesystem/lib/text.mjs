/** Same rule as git and grep: a NUL byte near the start means binary. @param {Buffer} bytes */
export function looksBinary(bytes) {
  return bytes.subarray(0, 8000).includes(0);
}
