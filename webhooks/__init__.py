"""The validating admission webhook server for the Dynamo resources."""
