import { strict as assert } from 'node:assert';
import { ServiceError, WorkflowFailedError } from '@temporalio/client';
import {
  ActivityFailure,
  ApplicationFailure,
  NamespaceNotFoundError,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { describe, it } from 'mocha';
import { storeUnavailable, toFailure } from '../../domain/failures';
import { temporalErrorToApiError } from '../../api/temporal-errors';

const activityFailed = (cause: Error) =>
  new WorkflowFailedError(
    'workflow failed',
    new ActivityFailure('activity failed', 'searchCases', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, undefined, cause),
    RetryState.NON_RETRYABLE_FAILURE,
  );

describe('temporalErrorToApiError', () => {
  it('maps an activity timeout after its retries to 504', () => {
    const err = temporalErrorToApiError(
      activityFailed(new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE)),
      'search',
    );
    assert.equal(err.code, 504);
  });

  it('maps typed application failures: DependencyTimeout 504, DependencyUnavailable 503, InvalidInput 400, NotFound 404', () => {
    const code = (type: string) =>
      temporalErrorToApiError(activityFailed(ApplicationFailure.create({ message: 'm', type })), 'op').code;
    assert.equal(code('DependencyTimeout'), 504);
    assert.equal(code('DependencyUnavailable'), 503);
    assert.equal(code('InvalidInput'), 400);
    assert.equal(code('NotFound'), 404);
    assert.equal(code('SomethingElse'), 500);
  });

  it("never passes a dependency's own error text to the client", () => {
    const upstream = Object.assign(new Error('inference failed: surrogates not allowed at /srv/model.bin'), {
      name: 'WeaviateRequestTimeoutError',
    });
    const failure = toFailure(upstream) as ApplicationFailure;
    assert.equal(failure.message, 'the vector store did not answer in time');
    assert.deepEqual(failure.details, [upstream.message]);
    const err = temporalErrorToApiError(activityFailed(failure), 'search');
    assert.equal(err.code, 504);
    assert.equal(err.message.includes('inference'), false);
  });

  it('treats a restarted vector store that has not restored its schema yet as unavailable (retried, 503), not as a 500', () => {
    const upstream = Object.assign(
      new Error(
        'Query call with protocol gRPC failed with message: /weaviate.v1.Weaviate/Search UNKNOWN: could not find class SupportCase in schema',
      ),
      { name: 'WeaviateQueryError' },
    );
    const failure = toFailure(upstream) as ApplicationFailure;
    assert.equal(failure.type, 'DependencyUnavailable');
    assert.equal(failure.nonRetryable, false);
    assert.equal(failure.message, 'the vector store is unavailable');
    assert.equal(temporalErrorToApiError(activityFailed(failure), 'search').code, 503);
  });

  it('treats a replicated store that cannot reach enough copies, or has no Raft leader yet, as unavailable (retried, 503)', () => {
    for (const text of [
      'msg:search index supportcase code:500 err:cannot achieve consistency level "QUORUM": read error',
      'put object: import into index articlepassage: replicate insertion: shard="x": broadcast: cannot reach enough replicas',
      'failed to query leader: no leader found',
      // One object's error in a batch, when the node that forwarded it lost its peer mid-call.
      'failed to execute query: rpc error: code = Canceled desc = grpc: the client connection is closing',
    ]) {
      assert.ok(storeUnavailable(text), text);
      const upstream = Object.assign(new Error(`Query call with protocol gRPC failed with message: ${text}`), {
        name: 'WeaviateQueryError',
      });
      const failure = toFailure(upstream) as ApplicationFailure;
      assert.equal(failure.type, 'DependencyUnavailable', text);
      assert.equal(failure.nonRetryable, false);
      assert.equal(temporalErrorToApiError(activityFailed(failure), 'search').code, 503);
    }
  });

  it("names the vector store for the gRPC errors of the Weaviate client's calls", () => {
    const upstream = Object.assign(new Error('/weaviate.v1.Weaviate/Search UNAVAILABLE: No connection established'), {
      name: 'ClientError',
      path: '/weaviate.v1.Weaviate/Search',
      code: 14,
    });
    const failure = toFailure(upstream) as ApplicationFailure;
    assert.equal(failure.type, 'DependencyUnavailable');
    assert.equal(failure.message, 'the vector store is unavailable');
  });

  it('treats a connection closed mid-request (fetch failed: other side closed) as unavailable, not as a 500', () => {
    const upstream = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    const failure = toFailure(upstream) as ApplicationFailure;
    assert.equal(failure.type, 'DependencyUnavailable');
    assert.equal(failure.nonRetryable, false);
  });

  it('maps the request deadline (an aborted wait) to 408', () => {
    const abort = Object.assign(new Error('deadline'), { name: 'AbortError' });
    assert.equal(temporalErrorToApiError(abort, 'upload').code, 408);
  });

  it('maps a failing workflow service to 503, whatever wraps the gRPC error', () => {
    const grpc = (code: number, details: string) =>
      Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
    for (const err of [
      grpc(14, 'shard status unknown'),
      new ServiceError('Failed to start Workflow', { cause: grpc(13, 'context canceled') }),
      new ServiceError('Unexpected error while making gRPC request', {
        cause: grpc(8, 'namespace rate limit exceeded'),
      }),
      new NamespaceNotFoundError('default'),
    ]) {
      const mapped = temporalErrorToApiError(err, 'upload');
      assert.equal(mapped.code, 503, err.message);
      assert.doesNotMatch(mapped.message, /shard|context|namespace|default/i, "the service's own text stays inside");
    }
    // A request the service refused as malformed is the API's own bug, not an outage.
    assert.equal(
      temporalErrorToApiError(new ServiceError('Failed to start Workflow', { cause: grpc(3, 'bad id') }), 'upload')
        .code,
      500,
    );
  });

  it('masks unknown errors as 500', () => {
    const err = temporalErrorToApiError(new Error('secret detail'), 'op');
    assert.equal(err.code, 500);
    assert.equal(err.expose, false);
  });
});
