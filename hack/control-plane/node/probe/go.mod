module local/dynamo-operator-real-node-probe

go 1.26.0
