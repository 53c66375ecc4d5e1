// express4 is `npm:express@4`: the v5 typings cover the few calls the tests make on it.
declare module 'express4' {
  import express from 'express';
  export default express;
}
