/** A fresh Redis key prefix per call (`stem1`, `stem2`, ...), so tests sharing one Redis never meet. */
export function keyPrefixes(stem: string): () => string {
  let count = 0;
  return () => {
    count += 1;
    return `${stem}${count}`;
  };
}
