// The part of autocannon's API the load benches use (the package ships no types).
declare module 'autocannon' {
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }
  export interface Result {
    requests: Histogram & { sent: number };
    /** seconds */
    duration: number;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** stop after this many requests instead of after `duration` */
    amount?: number;
    /** seconds before a request counts as a timeout */
    timeout?: number;
    /** (there is no `path` option: the path goes in `url`, or in each of `requests`) */
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    setupClient?: unknown;
    requests?: (RequestParams & { setupRequest?: (req: RequestParams) => RequestParams })[];
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
