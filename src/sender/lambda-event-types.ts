/**
 * The Lambda events {@link lambdaEvent} builds, written out field by field as AWS documents
 * them (and as `@types/aws-lambda` declares them), so a built event is assignable to
 * `APIGatewayProxyEvent`, `APIGatewayProxyEventV2` or `ALBEvent` without that package.
 */

/** API Gateway REST API (payload 1.0): `APIGatewayProxyEvent`. */
export interface LambdaRestApiEvent {
  resource: string;
  path: string;
  httpMethod: string;
  headers: Record<string, string | undefined>;
  multiValueHeaders: Record<string, string[] | undefined>;
  queryStringParameters: null;
  multiValueQueryStringParameters: null;
  pathParameters: null;
  stageVariables: null;
  requestContext: {
    accountId: string;
    apiId: string;
    authorizer: null;
    domainName: string;
    domainPrefix: string;
    extendedRequestId: string;
    httpMethod: string;
    identity: {
      accessKey: null;
      accountId: null;
      apiKey: null;
      apiKeyId: null;
      caller: null;
      clientCert: null;
      cognitoAuthenticationProvider: null;
      cognitoAuthenticationType: null;
      cognitoIdentityId: null;
      cognitoIdentityPoolId: null;
      principalOrgId: null;
      sourceIp: string;
      user: null;
      userAgent: string | null;
      userArn: null;
    };
    path: string;
    protocol: string;
    requestId: string;
    requestTime: string;
    requestTimeEpoch: number;
    resourceId: string;
    resourcePath: string;
    stage: string;
  };
  body: string | null;
  isBase64Encoded: boolean;
}

/** API Gateway HTTP API and Function URLs (payload 2.0): `APIGatewayProxyEventV2`. */
export interface LambdaHttpApiEvent {
  version: '2.0';
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers: Record<string, string | undefined>;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix: string;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    requestId: string;
    routeKey: string;
    stage: string;
    time: string;
    timeEpoch: number;
  };
  body?: string;
  isBase64Encoded: boolean;
}

/** An Application Load Balancer target (with or without multi-value headers): `ALBEvent`. */
export interface LambdaAlbEvent {
  requestContext: { elb: { targetGroupArn: string } };
  httpMethod: string;
  path: string;
  queryStringParameters?: Record<string, string | undefined>;
  headers?: Record<string, string | undefined>;
  multiValueQueryStringParameters?: Record<string, string[] | undefined>;
  multiValueHeaders?: Record<string, string[] | undefined>;
  body: string | null;
  isBase64Encoded: boolean;
}
